// The system SQLite (Debian: libsqlite3-dev), for the run history (`--history FILE.sqlite`).
#include <sqlite3.h>
