/**
 * Loads a package the first time a configured feature needs it. The messaging provider's SDK, the mail transport,
 * the identity provider's client and the Redis client are ~300 modules together; a deployment that has not set them
 * up does not load them, and one that has pays for them once, when the feature is constructed. The caller names the
 * package's type with `import type`, which compiles to nothing.
 */
export function optionalPackage<T>(name: string): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(name) as T;
}
