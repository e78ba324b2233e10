/**
 * The `operationIdFactory` of the document: an operation's id is its handler's name (as Immich's factory does), so
 * each handler is named for the call a generated client exposes (`listExpenses`, `closeMonth`). Renaming a handler
 * renames that call, which `npm run openapi:check` shows as a diff of the contract; finishDocument refuses two
 * operations with one id.
 */
export function operationId(_controllerKey: string, methodKey: string): string {
  return methodKey;
}
