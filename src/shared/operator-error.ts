// A failure the operator can act on (a busy store, a bad delivery, a port in use, a refused admin
// command): the CLI prints its message in one line, never a stack trace.

export class OperatorError extends Error {}
