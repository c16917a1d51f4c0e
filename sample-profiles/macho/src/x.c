// C source of the Mach-O fixtures (and of their ELF twin, which is run for the profile).
int classify(int n) {
    if (n < 0)
        return -1;
    else if (n == 0)
        return 0;
    int steps = 0;
    while (n > 1) {
        n = n / 2;
        steps++;
    }
    return steps;
}

int never_called(int n) {
    return n * 2;
}

int main(void) {
    int total = 0;
    for (int i = -2; i < 9; i++)
        total += classify(i);
    return total == 0;
}
