declare module 'console:registry' {
  import type { ConsoleResource } from './registry-types.js';
  export const RESOURCES: readonly ConsoleResource[];
}
