// fs-native-extensions ships no types; these are the calls loyalty-bridge makes.
declare module 'fs-native-extensions' {
  /** Takes an exclusive lock on the whole file; false when another file description holds one. */
  export function tryLock(fd: number, options?: { shared?: boolean }): boolean;
  export function unlock(fd: number): void;
  const fsx: { tryLock: typeof tryLock; unlock: typeof unlock };
  export default fsx;
}
