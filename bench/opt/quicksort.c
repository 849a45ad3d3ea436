/* In-place quicksort (Lomuto partition, recursion on both halves). */
static void swap(int *a, int *b) {
  int t = *a;
  *a = *b;
  *b = t;
}

void quicksort(int *v, int lo, int hi) {
  while (lo < hi) {
    int pivot = v[(lo + hi) / 2];
    swap(&v[(lo + hi) / 2], &v[hi]);
    int store = lo;
    for (int i = lo; i < hi; i++)
      if (v[i] < pivot) {
        swap(&v[i], &v[store]);
        store++;
      }
    swap(&v[store], &v[hi]);
    quicksort(v, lo, store - 1);
    lo = store + 1;
  }
}
