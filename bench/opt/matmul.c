/* c = a * b for n x n matrices of longs, row-major. */
void matmul(const long *a, const long *b, long *c, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      long sum = 0;
      for (int k = 0; k < n; k++)
        sum += a[i * n + k] * b[k * n + j];
      c[i * n + j] = sum;
    }
}
