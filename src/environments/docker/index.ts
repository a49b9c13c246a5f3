/** The `docker` backend: one long-lived container per environment, docker or podman. */
export { DockerProvider, WORKDIR } from './docker-provider.js';
export { DockerEnvironment, DockerError, RECREATED_NOTE, type DockerEnvironmentOptions } from './docker-environment.js';
export {
  runArgs, execArgs, findArgs, removeArgs, removeVolumeArgs, inspectArgs, startArgs, shortHash,
  SHELL_CAPS, LABEL_GATEWAY, LABEL_SESSION, NO_SUCH_CONTAINER, type ContainerSpec,
} from './docker-args.js';
export {
  chooseEngine, askEngine, answers, describeAnswers, forgetEngineAnswers, ENGINE_CLIENTS,
  type EngineAnswer, type AnsweringEngine, type EngineChoice,
} from './engine.js';
