#include "tools/cli.h"

int main(int argc, char** argv) { return allocsim::cli::run(argc, argv); }
