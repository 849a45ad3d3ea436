/* Sieve of Eratosthenes over flags[0..n): returns the number of primes below n. */
int sieve(char *flags, int n) {
  int count = 0;
  for (int i = 0; i < n; i++)
    flags[i] = 1;
  for (int i = 2; i < n; i++) {
    if (flags[i]) {
      count++;
      for (long j = (long)i * i; j < n; j += i)
        flags[j] = 0;
    }
  }
  return count;
}
