/** A registry command's failure: one line, and `EXIT.network` from the CLI. */
export class RegistryError extends Error {}
