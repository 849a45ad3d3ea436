/* Bitwise CRC-32 (reflected, polynomial 0xEDB88320) with a 256-entry table. */
void crc32_table(unsigned *table) {
  for (unsigned i = 0; i < 256; i++) {
    unsigned c = i;
    for (int k = 0; k < 8; k++)
      c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
}

unsigned crc32(const unsigned *table, const unsigned char *data, long n) {
  unsigned crc = 0xFFFFFFFFu;
  for (long i = 0; i < n; i++)
    crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}
