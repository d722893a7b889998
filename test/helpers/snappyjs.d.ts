/** snappyjs ships no types: the one function the remote-write test writer uses. */
declare module 'snappyjs' {
  export function compress(input: Uint8Array): Uint8Array;
  const snappy: { compress(input: Uint8Array): Uint8Array };
  export default snappy;
}
