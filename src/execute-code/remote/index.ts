/**
 * execute_code on remote terminal backends (SSH, Docker, plugins without `hostCommand`).
 *
 * Two channels, one contract:
 * - the stream (`Environment.openStream`: one SSH session, `docker exec -i`, a plugin's
 *   stdio): stream-channel.ts sends remote_stream_runner.py, which makes the private folder,
 *   starts the script (stream-script.ts) or kernel_runner.py (stream-kernel.ts) and
 *   multiplexes frames — output as it is written, tool calls (rpc-relay.ts, to an RpcServer
 *   of the call), kill, exit. The stream is a remote kernel's lifeline.
 * - the file transport, for backends without a stream: a private folder polled through
 *   `execute` (file-rpc.ts, remote-per-call.ts, remote-kernel.ts, remote-folder.ts).
 * remote-runner.ts picks one per call; remote-kernels.ts pools both kinds of kernel;
 * sweep.ts decides which run removes what a killed gateway left on a backend.
 */
export { RemoteCodeRunner, type RemoteRunnerDeps } from './remote-runner.js';
export { executeRemotePerCall, remoteScriptEnv, type RemotePerCallInput } from './remote-per-call.js';
export { executeStreamPerCall, streamScriptEnv, superviseChannel, type StreamPerCallInput } from './stream-script.js';
export { StreamChannel, StreamUnavailableError, offersStream, STREAM_COMMAND, type StreamSetup, type ChannelEnd, type ChannelListeners } from './stream-channel.js';
export { StreamKernel, type StreamKernelStart } from './stream-kernel.js';
export { FileRpcPoller, type FileRpcOptions, type FileRpcHandler, type Rejection } from './file-rpc.js';
export { RemoteKernels } from './remote-kernels.js';
export { RemoteKernel, type RemoteCellOptions } from './remote-kernel.js';
export { claimSweep, forgetSweeps } from './sweep.js';
export { createRemoteFolder, removeRemoteFolder, readRemoteFile, fileTransportStub, backendName, RemoteExecError } from './remote-folder.js';
