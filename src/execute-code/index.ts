export type { CodeExecutor, ExecuteCodeRequest, ExecuteCodeResult, KernelInfo } from './types.js';
export { createCodeExecutor, DefaultCodeExecutor, type CodeExecutorOptions } from './executor.js';
export { executeCodeTool, executeCodeDescription } from './tool.js';
export { RpcServer } from './rpc/server.js';
export { renderStub, type StubFunction } from './stub.js';
