/**
 * The cluster hash slot of a key (CRC16/XMODEM of the key, or of its `{hash tag}`, mod
 * 16384), so the limiter can tell which node serves a key without asking the client library.
 */

const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[i] = crc;
  }
  return table;
})();

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ byte) & 0xff];
  return crc;
}

/** The slot Redis Cluster gives `key`. */
export function slotOf(key: string | Buffer): number {
  const bytes = typeof key === "string" ? Buffer.from(key) : key;
  const open = bytes.indexOf(0x7b); // {
  if (open >= 0) {
    const close = bytes.indexOf(0x7d, open + 1); // }
    if (close > open + 1) return crc16(bytes.subarray(open + 1, close)) % 16384;
  }
  return crc16(bytes) % 16384;
}
