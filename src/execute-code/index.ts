/**
 * execute_code: the model writes a Python script that does `from hermes_tools import …`; it
 * runs where the session's terminal backend runs, and its tool calls come back over an RPC.
 *
 * One path, two choices, each made in one place:
 *
 *   executor.ts  validate, pick the allowed tools, render the stub (stub.ts), then
 *     where?   runsOnThisHost(environment)       — decided once, in DefaultCodeExecutor.execute
 *       this host (local, sandbox) → local-runner.ts     (spawns through `hostCommand`, local socket)
 *       elsewhere (SSH, Docker, plugins) → remote/remote-runner.ts (over the stream, else files)
 *     how?     call-path.ts runCall               — the one fallback, for both sides
 *       session kernel when code_execution.session_kernels, else (or when none starts) one-shot
 *   then the result is cleaned for the model (ANSI stripped, secrets masked) in executor.ts.
 *
 *              one-shot script                     session kernel
 *   this host  per-call-execution.ts, per-call.ts  session-kernels.ts + kernel/ (KernelProcess, KernelPool)
 *   elsewhere  remote/stream-script.ts (stream)    remote/remote-kernels.ts: remote/stream-kernel.ts (stream)
 *              remote/remote-per-call.ts (files)     or remote/remote-kernel.ts (files)
 *
 * What the paths share: call-gate.ts (what a call may do, its budget), rpc/ (the RPC
 * socket server), kernel-cells.ts (the pool, the tool-set check, a gated cell and its
 * result, local or remote), the one `Kernel` contract (kernel/types.ts: every kernel answers
 * one `CellOutcome`, `busy` included) with kernel/frame-kernel.ts (the cell state machine of
 * kernel_runner.py over a FrameTransport: kernel/socket-transport.ts here, the stream's in
 * remote/stream-kernel.ts), result.ts, stdout-sink.ts (capped stdout, spilled to a file),
 * tool.ts (the tool and its description), and the texts in src/shared/notices.ts. On this
 * host only: launch.ts, interpreter.ts, script-env.ts, staging.ts (how a process starts).
 * python/ holds what runs on the far side: the stub's base and transports, kernel_runner.py
 * (every kernel, local or over a stream), remote_stream_runner.py with remote_stream_relay.py
 * (the stream's far end and its RPC relay), remote_kernel_runner.py (a kernel over files),
 * remote_sweep.py. remote/index.ts says how the stream and the file transport work.
 */
export type { CodeExecutor, ExecuteCodeRequest, ExecuteCodeResult, KernelInfo } from './types.js';
export { createCodeExecutor, DefaultCodeExecutor, type CodeExecutorOptions } from './executor.js';
export { executeCodeTool, executeCodeDescription, runExecuteCode, type ExecuteCodeArgs } from './tool.js';
export { RpcServer } from './rpc/server.js';
export { renderStub, type StubFunction } from './stub.js';
