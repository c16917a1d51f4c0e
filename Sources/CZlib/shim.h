// The system zlib (Debian: zlib1g-dev), for the compressed names and filenames of llvm's coverage data.
#include <zlib.h>
