#include <stdio.h>
#include <stdlib.h>
void crc32_table(unsigned *table);
unsigned crc32(const unsigned *table, const unsigned char *data, long n);
int main(void) {
  long n = 200L * 1000 * 1000;
  unsigned char *data = malloc(n);
  for (long i = 0; i < n; i++)
    data[i] = (unsigned char)(i * 2654435761u >> 24);
  unsigned table[256];
  crc32_table(table);
  printf("%08x\n", crc32(table, data, n));
  return 0;
}
