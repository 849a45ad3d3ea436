#include <stdio.h>
#include <stdlib.h>
int sieve(char *flags, int n);
int main(void) {
  int n = 50000000;
  char *flags = malloc(n);
  printf("%d\n", sieve(flags, n));
  return 0;
}
