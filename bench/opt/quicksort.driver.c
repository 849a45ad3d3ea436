#include <stdio.h>
#include <stdlib.h>
void quicksort(int *v, int lo, int hi);
int main(void) {
  int n = 5000000;
  int *v = malloc(sizeof(int) * n);
  unsigned x = 12345;
  for (int i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    v[i] = (int)(x >> 1);
  }
  quicksort(v, 0, n - 1);
  long check = 0;
  for (int i = 0; i < n; i += 1000)
    check += v[i] % 1000;
  for (int i = 1; i < n; i++)
    if (v[i - 1] > v[i]) {
      printf("unsorted\n");
      return 1;
    }
  printf("%ld\n", check);
  return 0;
}
