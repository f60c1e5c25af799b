# A real PostgreSQL server for a test (Debian's postgresql package): a
# fresh cluster under $TMP on a Unix socket only (no TCP port to collide
# with), trust authentication, stopped by pg_stop (call it from the test's
# EXIT trap). PostgreSQL refuses to run as root: as root the server runs
# as the postgres user, in a directory handed to it.
# usage: pg_start || skip ...; then $PG_URL names the database "cmax".
pg_bin() {
	local d
	for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && { echo "$d"; return 0; }; done
	command -v initdb >/dev/null && { dirname "$(command -v initdb)"; return 0; }
	return 1
}
pg_as() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
pg_start() {
	PG_BIN=$(pg_bin) || { PG_WHY="no PostgreSQL server binaries (Debian package postgresql)"; return 1; }
	if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then PG_WHY="running as root and no postgres user"; return 1; fi
	PG_DIR=$TMP/pg
	mkdir -p "$PG_DIR" && chmod 711 "$TMP" || return 1
	[ "$(id -u)" -eq 0 ] && chown postgres "$PG_DIR"
	pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -A trust -U cmax --no-sync >"$TMP/pg-initdb.log" 2>&1 ||
		{ PG_WHY="initdb failed: $(tail -1 "$TMP/pg-initdb.log")"; return 1; }
	PG_PORT=$((20000 + RANDOM % 20000))
	pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w -t 60 \
		-o "-c listen_addresses='' -k $PG_DIR -p $PG_PORT -c fsync=off" start >"$TMP/pg-start.log" 2>&1 ||
		{ PG_WHY="the server did not start: $(tail -2 "$PG_DIR/log" 2>/dev/null | tr '\n' ' ')"; return 1; }
	PG_STARTED=1
	pg_as "$PG_BIN/createdb" -h "$PG_DIR" -p "$PG_PORT" -U cmax cmax >"$TMP/pg-createdb.log" 2>&1 ||
		{ PG_WHY="createdb failed: $(tail -1 "$TMP/pg-createdb.log")"; return 1; }
	PG_URL="postgresql://cmax@/cmax?host=$PG_DIR&port=$PG_PORT"
}
pg_stop() {
	[ -n "${PG_STARTED:-}" ] && pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1
	PG_STARTED=
}
