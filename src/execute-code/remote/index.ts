/**
 * execute_code on remote terminal backends (SSH, Docker, plugins without `hostCommand`):
 * the file transport (a private folder on the backend, request/response files polled
 * through the environment), one-shot scripts and session kernels over it.
 */
export { RemoteCodeRunner, type RemoteRunnerDeps } from './remote-runner.js';
export { executeRemotePerCall, remoteScriptEnv, type RemotePerCallInput } from './remote-per-call.js';
export { FileRpcPoller, type FileRpcOptions, type FileRpcHandler, type Rejection } from './file-rpc.js';
export { RemoteKernels } from './remote-kernels.js';
export { RemoteKernel } from './remote-kernel.js';
export { createRemoteFolder, removeRemoteFolder, readRemoteFile, fileTransportStub, backendName, RemoteExecError } from './remote-folder.js';
