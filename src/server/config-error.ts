/** A setting that stops the start (exit code 2); its message is French and names the variable. */
export class ConfigError extends Error {}
