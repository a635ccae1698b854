#include <cstring>
extern "C" int sk_launch(void);
extern "C" int sk_check(void);
int main(int argc, char **argv) { return argc > 1 && strcmp(argv[1], "check") == 0 ? sk_check() : sk_launch(); }
