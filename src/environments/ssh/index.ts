/** The `ssh` backend: commands on a build box through the system OpenSSH client. */
export { SshProvider } from './ssh-provider.js';
export { SshEnvironment, SshError, type SshEnvironmentOptions } from './ssh-environment.js';
export { sshOptions, sshCommand, controlPath, destination, remoteCommandLine, type SshTarget } from './ssh-args.js';
export { RemoteShellEnvironment, type RemoteShellOptions, type ClientCommand, type ClientRun } from './remote-shell.js';
export { BOOTSTRAP, remoteScript, killScript, bootstrapInput, pgidFile } from './remote-command.js';
export { openClientStream, streamScript, streamKillScript, type StreamClient, type StreamTarget } from './remote-stream.js';
