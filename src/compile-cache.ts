import { enableCompileCache } from 'node:module';

/**
 * Node keeps the compiled code of every module it loads on disk (under the OS temp directory, or NODE_COMPILE_CACHE)
 * and reuses it on the next start: loading the service's ~1,500 modules was the largest part of a restart. Imported
 * first by main.ts so that everything after it is covered. Where the directory cannot be written (a read-only root
 * file system) Node just does without it.
 */
enableCompileCache();
