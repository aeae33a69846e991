// A setting the operator must fix: reported in one clear sentence, without a stack.
export class ConfigError extends Error {}
