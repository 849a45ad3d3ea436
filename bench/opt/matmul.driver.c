#include <stdio.h>
#include <stdlib.h>
void matmul(const long *a, const long *b, long *c, int n);
int main(void) {
  int n = 400;
  long *a = malloc(sizeof(long) * n * n), *b = malloc(sizeof(long) * n * n),
       *c = malloc(sizeof(long) * n * n);
  for (int i = 0; i < n * n; i++) {
    a[i] = i % 7;
    b[i] = i % 5;
  }
  long total = 0;
  for (int r = 0; r < 3; r++) {
    matmul(a, b, c, n);
    total += c[r * 17];
  }
  printf("%ld\n", total);
  return 0;
}
