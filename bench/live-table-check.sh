#!/usr/bin/env bash
# Black-box checks of issue 12 ("safe on a live production table") with bin/dedup against a real
# MySQL/MariaDB server: kill -9 during `run --apply` and during `restore` (after which the next apply
# leaves the restored rows in place: they are marked apart), two concurrent applies, the two
# edited-row cases, and the table lock's session killed during the sync and the passes. One line
# per trial, then "N passed, N failed"; exit code 1 on any failure.
#
# Settings (environment):
#   DEDUP_DB_URL       jdbc:mysql://host:port/db or jdbc:mariadb://… (required)
#   DEDUP_DB_USER      login for bin/dedup (required)
#   DEDUP_DB_PASSWORD  its password (required; never put it on a command line)
#   DEDUP_SQL          a client command for the checks, connected to the same database with rights to
#                      read the tables and information_schema.PROCESSLIST and to drop the harness's
#                      tables, e.g. DEDUP_SQL="mariadb -S /run/mysqld/ext.sock -u root crawl" (required)
#   RECORDS            rows of each trial's table (default 100000)
#   KILL_TRIALS RESTORE_TRIALS CONCURRENT_TRIALS   trials of a, b, c (default 20, 5, 3); EDIT_TRIALS=0 skips d
#   LOCK_KILL_TRIALS   trials of e, the lock's session killed (default 2)
#   SEED               random seed of the kill moments (default: from the clock; printed)
#   TABLE_PREFIX       prefix of every table the harness creates (default kill_); the harness drops
#                      <prefix>*, their archives and their dedup_run/dedup_plan/dedup_apart* rows, never other tables
#   LOAD_EACH=1        load each trial's table with `bin/dedup load` (default: load one template table
#                      with it, then copy it per trial with CREATE TABLE … LIKE + INSERT … SELECT, ~5x faster)
#   KEEP=1             keep the temp dir and every table (default: keep only those of failed trials)
#
# Example:
#   DEDUP_DB_URL=jdbc:mariadb://127.0.0.1:3307/crawl DEDUP_DB_USER=dedup DEDUP_DB_PASSWORD=… \
#   DEDUP_SQL="mariadb -S /run/mysqld/ext.sock -u root crawl" bench/live-table-check.sh
set -euo pipefail

root="$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)"
: "${DEDUP_DB_URL:?set DEDUP_DB_URL (jdbc:mysql://host:port/db)}"
: "${DEDUP_DB_USER:?set DEDUP_DB_USER}"
: "${DEDUP_DB_PASSWORD:?set DEDUP_DB_PASSWORD}"
: "${DEDUP_SQL:?set DEDUP_SQL, e.g. mariadb -S /run/mysqld/ext.sock -u root crawl}"
export DEDUP_DB_PASSWORD
RECORDS=${RECORDS:-100000}
KILL_TRIALS=${KILL_TRIALS:-20}
RESTORE_TRIALS=${RESTORE_TRIALS:-5}
CONCURRENT_TRIALS=${CONCURRENT_TRIALS:-3}
EDIT_TRIALS=${EDIT_TRIALS:-1}
LOCK_KILL_TRIALS=${LOCK_KILL_TRIALS:-2}
SEED=${SEED:-$(( $(date +%s) % 32768 ))}
P=${TABLE_PREFIX:-kill_}
RANDOM=$SEED

jar="$root/tools/target/xiaochong-tools.jar"
if [ ! -f "$jar" ]; then
  echo "building $jar ..." >&2
  (cd "$root" && ./mvnw -B -ntp -q -DskipTests -pl tools -am package >&2)
fi
dedup() { "$root/bin/dedup" "$@"; }
# shellcheck disable=SC2086
sql() { $DEDUP_SQL -N -B -e "$1"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

work=$(mktemp -d "${TMPDIR:-/tmp}/live-table-check.XXXXXX")
schema=$(sql "SELECT DATABASE()")
passed=0
failed=0
declare -A stages=()
echo "live-table checks: $RECORDS rows per table, seed $SEED, work dir $work, server $(sql 'SELECT VERSION()'), schema $schema"

# A config for table $1 with index folder $2 (written under the work dir; no password in it).
config() {
  local file="$work/cfg-$1-$(basename "$2").properties"
  cat >"$file" <<EOF
db.url=$DEDUP_DB_URL
db.user=$DEDUP_DB_USER
source.table=$1
source.id-column=id
source.time-column=reg_time
fields.exact=title,category,product,region,price,contact,phone,content
fields.phone=phone
index.dir=$2
EOF
  echo "$file"
}

has_table() { [ "$(sql "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '$1'")" = 1 ]; }

# Drops table $1, its archive and its bookkeeping rows.
drop_trial() {
  sql "DROP TABLE IF EXISTS \`$1\`, \`$1_removed\`"
  if has_table dedup_run; then
    if has_table dedup_plan; then
      sql "DELETE p FROM dedup_plan p JOIN dedup_run r ON r.id = p.run_id WHERE r.source_table = '$1'"
    fi
    sql "DELETE FROM dedup_run WHERE source_table = '$1'"
  fi
  if has_table dedup_lock; then
    sql "DELETE FROM dedup_lock WHERE lock_name = 'xiaochong.$schema.$1'"
  fi
  if has_table dedup_apart; then
    sql "DELETE FROM dedup_apart WHERE source_table = '$1'" # a reloaded table reuses the ids of the marks
  fi
  if has_table dedup_apart_member; then
    sql "DELETE FROM dedup_apart_member WHERE source_table = '$1'"
    sql "DELETE FROM dedup_apart_group WHERE source_table = '$1'"
  fi
}

# A fresh copy of the generated posts in table $1.
fresh_table() {
  drop_trial "$1"
  if [ "${LOAD_EACH:-0}" = 1 ]; then
    dedup load "$work/posts.jsonl" --table "$1" --format jsonl --config "$(config "$1" "$work/none")" >/dev/null
  else
    sql "CREATE TABLE \`$1\` LIKE \`${P}template\`; INSERT INTO \`$1\` SELECT * FROM \`${P}template\`"
  fi
}

checksum_sql() { echo "SELECT COALESCE(SUM(CRC32(CONCAT_WS('|', id, title, content, reg_time))), 0) FROM $1"; }

# "rows distinct_ids in_both checksum" of table $1 ∪ its archive (the archive may not exist yet).
union_state() {
  local u="(SELECT id, title, content, reg_time FROM \`$1\`"
  local both=0
  if has_table "$1_removed"; then
    u="$u UNION ALL SELECT id, title, content, reg_time FROM \`$1_removed\`"
    both="(SELECT COUNT(*) FROM \`$1\` t JOIN \`$1_removed\` r USING (id))"
  fi
  u="$u) u"
  sql "SELECT (SELECT COUNT(*) FROM $u), (SELECT COUNT(DISTINCT id) FROM $u), $both, ($(checksum_sql "$u"))" | tr '\t' ' '
}

# Waits (up to 120 s) until no session works on table $1 any more: the lock is free and no statement
# names the table (a killed client's last statement runs to its end and is rolled back server-side).
wait_quiet() {
  local i
  for i in $(seq 1 240); do
    if [ "$(sql "SELECT IS_USED_LOCK('xiaochong.$schema.$1') IS NULL AND (SELECT COUNT(*) FROM information_schema.PROCESSLIST
        WHERE ID <> CONNECTION_ID() AND INFO LIKE '%$1%') = 0")" = 1 ]; then
      return 0
    fi
    sleep 0.5
  done
  return 1
}

# Removed/kept pairs planned by the dry run's report $1, sorted.
plan_pairs() { jq -r '"\(.removed_id)\t\(.kept_id)"' "$1/decisions.jsonl" | LC_ALL=C sort; }
archive_pairs() { sql "SELECT id, dedup_kept_id FROM \`$1_removed\`${2:+ WHERE dedup_run_id = $2}" | LC_ALL=C sort; }

# Checks that archive(table $1) = plan file $2 and the table holds exactly the other rows; prints why not.
check_plan() {
  local t=$1 plan=$2 dir=$3
  archive_pairs "$t" >"$dir/archive.tsv"
  local n planned state
  planned=$(wc -l <"$plan")
  n=$(wc -l <"$dir/archive.tsv")
  if ! cmp -s "$plan" "$dir/archive.tsv"; then
    echo "archive ($n rows) != dry-run plan ($planned): $(diff "$plan" "$dir/archive.tsv" | grep -c '^[<>]') lines differ"
    return 1
  fi
  state=$(union_state "$t")
  if [ "$state" != "$RECORDS $RECORDS 0 $original" ]; then
    echo "table ∪ archive is '$state', expected '$RECORDS $RECORDS 0 $original'"
    return 1
  fi
  if [ "$(sql "SELECT COUNT(*) FROM \`$t\`")" != $((RECORDS - planned)) ]; then
    echo "table has $(sql "SELECT COUNT(*) FROM \`$t\`") rows, expected $((RECORDS - planned))"
    return 1
  fi
  if [ "$(sql "SELECT COUNT(*) FROM dedup_run WHERE source_table = '$t' AND status NOT IN ('applied', 'restored')")" != 0 ]; then
    echo "unfinished runs: $(sql "SELECT GROUP_CONCAT(id, ':', status) FROM dedup_run WHERE source_table = '$t'")"
    return 1
  fi
}

# Dry run of table $1 with a fresh index folder; report into $2/dry.
dry_run() {
  dedup run --config "$(config "$1" "$2/idx-dry")" --report "$2/dry" >"$2/dry.out" 2>&1
  plan_pairs "$2/dry" >"$2/plan.tsv"
}

# Trial $1 (a3, b1, …): sets t (its table, a fresh copy), dir (its work folder), planned (the rows a
# dry run plans to remove; the plan in $dir/plan.tsv) and cfg (its config, index in $dir/idx).
new_trial() {
  t="${P}$1"
  dir="$work/$1"
  mkdir -p "$dir"
  fresh_table "$t"
  dry_run "$t" "$dir"
  planned=$(wc -l <"$dir/plan.tsv")
  cfg=$(config "$t" "$dir/idx")
}

result() { # $1 = 0 pass / else fail, $2 = the line
  if [ "$1" = 0 ]; then
    passed=$((passed + 1))
    echo "PASS $2"
  else
    failed=$((failed + 1))
    echo "FAIL $2"
  fi
}

finish_trial() { # $1 = status, $2 = table, $3 = dir
  if [ "$1" = 0 ] && [ "${KEEP:-0}" != 1 ]; then
    drop_trial "$2"
    rm -rf "$3"
  fi
}

# Kill moments: n slots of [0, T), one uniform draw in each (stratified: uniform overall, and every
# part of the run gets its share), in shuffled order.
moments() { # $1 = n, $2 = T seconds
  local n=$1 i j tmp
  local -a order=()
  for ((i = 0; i < n; i++)); do order[i]=$i; done
  for ((i = n - 1; i > 0; i--)); do
    j=$((RANDOM % (i + 1)))
    tmp=${order[i]}; order[i]=${order[j]}; order[j]=$tmp
  done
  for ((i = 0; i < n; i++)); do
    awk -v s="${order[i]}" -v u="$(( (RANDOM << 15 | RANDOM) ))" -v n="$n" -v T="$2" \
      'BEGIN { printf "%.3f\n", (s + u / 1073741824) / n * T }'
  done
}

# --- setup: generate once, load the template, measure one uninterrupted apply and restore ---------
t0=$(now)
dedup generate --records "$RECORDS" --seed 20081118 --out "$work/posts.jsonl"
sql "DROP TABLE IF EXISTS \`${P}template\`"
dedup load "$work/posts.jsonl" --table "${P}template" --format jsonl --config "$(config "${P}template" "$work/none")" >/dev/null
original=$(sql "$(checksum_sql "\`${P}template\`")")
echo "generated and loaded $RECORDS posts in $(secs "$t0" "$(now)") s; checksum $original"

cal="${P}calibrate"
mkdir -p "$work/cal"
fresh_table "$cal"
t0=$(now)
dedup run --apply --config "$(config "$cal" "$work/cal/idx")" >"$work/cal/apply.out" 2>&1
apply_seconds=$(secs "$t0" "$(now)")
cal_run=$(sql "SELECT MAX(id) FROM dedup_run WHERE source_table = '$cal'")
t0=$(now)
dedup restore --run "$cal_run" --config "$(config "$cal" "$work/cal/idx")" >"$work/cal/restore.out" 2>&1
restore_seconds=$(secs "$t0" "$(now)")
echo "uninterrupted: run --apply $apply_seconds s ($(grep -o 'exact: [0-9,]* groups, [0-9,]* duplicates removed' "$work/cal/apply.out")), restore $restore_seconds s"
echo "  $(grep '^done:' "$work/cal/apply.out")"
drop_trial "$cal"
rm -rf "$work/cal"

# --- a. kill -9 during run --apply ------------------------------------------------------------------
stage_of_run() { # $1 = table, $2 = planned count, $3 = index dir: where the killed run was
  local runs status id plan archived
  runs=$(sql "SELECT COUNT(*) FROM dedup_run WHERE source_table = '$1'")
  if [ "$runs" = 0 ]; then
    if compgen -G "$3/segments_*" >/dev/null; then echo "exact-pass"; else echo "index-build"; fi
    return
  fi
  read -r id status < <(sql "SELECT id, status FROM dedup_run WHERE source_table = '$1' ORDER BY id DESC LIMIT 1")
  archived=$(sql "SELECT COUNT(*) FROM \`$1_removed\` WHERE dedup_run_id = $id")
  if [ "$status" = applying ]; then
    plan=$(sql "SELECT COUNT(*) FROM dedup_plan WHERE run_id = $id")
    if [ "$plan" -lt "$2" ]; then echo "plan-write(plan=$plan,moved=$archived)"
    elif [ "$archived" -lt "$2" ]; then echo "moves(moved=$archived)"
    else echo "finishing(moved=$archived)"; fi
  else
    echo "$status(moved=$archived)"
  fi
}

i=0
for delay in $(moments "$KILL_TRIALS" "$apply_seconds"); do
  i=$((i + 1))
  new_trial "a$i"
  # bin/dedup itself, not the function: it execs java, so $! is the process to kill
  "$root/bin/dedup" run --apply --config "$cfg" >"$dir/apply1.out" 2>&1 &
  pid=$!
  sleep "$delay"
  killed=killed
  kill -9 "$pid" 2>/dev/null || killed="exited before the kill"
  rc1=0
  wait "$pid" 2>/dev/null || rc1=$?
  wait_quiet "$t" || echo "  (a$i: sessions on $t still busy after 120 s)"
  stage=$(stage_of_run "$t" "$planned" "$dir/idx")
  [ "$killed" = killed ] || stage="completed(rc=$rc1)"
  key=${stage%%"("*}
  stages[$key]=$(( ${stages[$key]:-0} + 1 ))
  after=$(union_state "$t")
  ok=0
  why=""
  if [ "$after" != "$RECORDS $RECORDS 0 $original" ]; then
    ok=1
    why="after kill: table ∪ archive = '$after' (rows distinct both checksum)"
    sql "SELECT id, status, message FROM dedup_run WHERE source_table = '$t'" >"$dir/runs-after-kill.tsv"
  fi
  rc2=0
  t2=$(now)
  dedup run --apply --config "$cfg" >"$dir/apply2.out" 2>&1 || rc2=$?
  rerun="$(secs "$t2" "$(now)") s"
  resumed=$(grep -o 'finished interrupted run(s) \[[0-9, ]*\]' "$dir/apply2.out" || true)
  if [ "$rc2" != 0 ]; then
    ok=1
    why="$why; second run exit $rc2: $(tail -1 "$dir/apply2.out")"
  elif ! msg=$(check_plan "$t" "$dir/plan.tsv" "$dir"); then
    ok=1
    why="$why; after the second run: $msg"
  fi
  afterkill=ok
  [ -z "$why" ] || afterkill=BAD
  [ -z "$resumed" ] || resumed="[$resumed] "
  verdict="archive = plan ($planned)"
  [ "$ok" = 0 ] || verdict="-- $why (kept: $dir)"
  result "$ok" "$(printf 'a%02d kill at %6.2f s of %s s, %-32s after kill %s; rerun %s %s%s' "$i" "$delay" "$apply_seconds" \
    "$stage" "$afterkill" "$rerun" "$resumed" "$verdict")"
  finish_trial "$ok" "$t" "$dir"
done
if [ "$KILL_TRIALS" -gt 0 ]; then
  summary_a=""
  for s in "${!stages[@]}"; do summary_a="$summary_a $s=${stages[$s]}"; done
  echo "kills per stage of run --apply:$summary_a"
fi

# --- b. kill -9 during restore ---------------------------------------------------------------------
i=0
for delay in $(moments "$RESTORE_TRIALS" "$restore_seconds"); do
  i=$((i + 1))
  new_trial "b$i"
  ok=0
  why=""
  dedup run --apply --config "$cfg" >"$dir/apply.out" 2>&1 || { ok=1; why="apply failed: $(tail -1 "$dir/apply.out")"; }
  run=$(sql "SELECT MAX(id) FROM dedup_run WHERE source_table = '$t'")
  "$root/bin/dedup" restore --run "$run" --config "$cfg" >"$dir/restore1.out" 2>&1 &
  pid=$!
  sleep "$delay"
  killed=1
  kill -9 "$pid" 2>/dev/null || killed=0
  wait "$pid" 2>/dev/null || true
  wait_quiet "$t" || true
  status=$(sql "SELECT status FROM dedup_run WHERE id = $run")
  left=$(sql "SELECT COUNT(*) FROM \`${t}_removed\` WHERE dedup_run_id = $run")
  stage="$status(archived=$left)"
  [ "$killed" = 1 ] || stage="completed"
  after=$(union_state "$t")
  if [ "$after" != "$RECORDS $RECORDS 0 $original" ]; then
    ok=1
    why="$why after kill: table ∪ archive = '$after'"
  fi
  rc=0
  dedup restore --run "$run" --config "$cfg" >"$dir/restore2.out" 2>&1 || rc=$?
  table_state="$(sql "SELECT COUNT(*) FROM \`$t\`") $(sql "$(checksum_sql "\`$t\`")") $(sql "SELECT COUNT(*) FROM \`${t}_removed\` WHERE dedup_run_id = $run")"
  if [ "$rc" != 0 ]; then
    ok=1
    why="$why; second restore exit $rc: $(tail -1 "$dir/restore2.out")"
  elif [ "$table_state" != "$RECORDS $original 0" ]; then
    ok=1
    why="$why; after the second restore: rows checksum archived = '$table_state', expected '$RECORDS $original 0'"
  fi
  rc=0
  dedup run --apply --config "$cfg" >"$dir/apply2.out" 2>&1 || rc=$?
  if [ "$rc" != 0 ]; then
    ok=1
    why="$why; the next run --apply exit $rc: $(tail -1 "$dir/apply2.out")"
  elif [ "$(sql "SELECT COUNT(*) FROM \`$t\`") $(sql "$(checksum_sql "\`$t\`")")" != "$RECORDS $original" ]; then
    ok=1
    why="$why; the next run --apply removed restored rows: $(grep -o '[0-9,]* duplicates removed' "$dir/apply2.out")"
  fi
  verdict="restore again: table = original ($RECORDS rows, checksum), run $run's archive empty; next apply: the restored $planned stay"
  [ "$ok" = 0 ] || verdict="-- $why (kept: $dir)"
  result "$ok" "$(printf 'b%02d restore killed at %5.2f s of %s s, %-28s %s' "$i" "$delay" "$restore_seconds" "$stage" "$verdict")"
  finish_trial "$ok" "$t" "$dir"
done

# --- c. two concurrent run --apply --------------------------------------------------------------------
for ((i = 1; i <= CONCURRENT_TRIALS; i++)); do
  t="${P}c$i"
  dir="$work/c$i"
  mkdir -p "$dir"
  fresh_table "$t"
  dry_run "$t" "$dir"
  planned=$(wc -l <"$dir/plan.tsv")
  for who in A B; do
    (
      s=$(now)
      rc=0
      dedup run --apply --config "$(config "$t" "$dir/idx-$who")" >"$dir/$who.out" 2>&1 || rc=$?
      echo "$rc $(secs "$s" "$(now)")" >"$dir/$who.rc"
    ) &
    if [ "$who" = A ]; then sleep 0.2; fi
  done
  wait
  read -r rcA sA <"$dir/A.rc"
  read -r rcB sB <"$dir/B.rc"
  ok=0
  why=""
  if [ "$rcA" = 0 ] && [ "$rcB" = 2 ]; then winner=A; loser=B; lsec=$sB
  elif [ "$rcB" = 0 ] && [ "$rcA" = 2 ]; then winner=B; loser=A; lsec=$sA
  else ok=1; why="exit codes A=$rcA B=$rcB, expected one 0 and one 2"; winner=?; loser=?; lsec=0; fi
  holder=""
  if [ "$ok" = 0 ]; then
    holder=$(grep -o 'locked by another dedup command ([^)]*)' "$dir/$loser.out" || true)
    if [ -z "$holder" ]; then ok=1; why="the loser's output names no holder: $(tail -1 "$dir/$loser.out")"; fi
    if awk -v s="$lsec" 'BEGIN { exit !(s > 10) }'; then ok=1; why="$why; the loser took $lsec s"; fi
  fi
  if ! msg=$(check_plan "$t" "$dir/plan.tsv" "$dir"); then ok=1; why="$why; $msg"; fi
  wsec=$sB
  [ "$winner" != A ] || wsec=$sA
  verdict="archive = plan ($planned)"
  [ "$ok" = 0 ] || verdict="-- $why (kept: $dir)"
  result "$ok" "$(printf 'c%02d concurrent: %s exit 0 in %s s, %s exit 2 in %s s: "%s"; %s' "$i" "$winner" "$wsec" \
    "$loser" "$lsec" "$holder" "$verdict")"
  finish_trial "$ok" "$t" "$dir"
done

# --- d. the two edited-row cases ---------------------------------------------------------------------
if [ "$EDIT_TRIALS" -gt 0 ]; then
  post='"title":"供应山东烟台一级红富士苹果","category":"供应","product":"红富士苹果","region":"山东烟台","price":"3.20元/斤","contact":"王先生","phone":"13800138000","content":"本人有红富士苹果约5000斤，产地山东烟台，个大皮薄，价格3.20元/斤。联系人：王先生，电话：13800138000。"'
  printf '{"id":1,%s,"reg_time":"2024-05-01 08:00:00"}\n{"id":2,%s,"reg_time":"2024-05-02 08:00:00"}\n' "$post" "$post" \
    >"$work/twins.jsonl"
  for case in edited redated; do
    t="${P}d_$case"
    dir="$work/d_$case"
    mkdir -p "$dir"
    drop_trial "$t"
    cfg=$(config "$t" "$dir/idx")
    dedup load "$work/twins.jsonl" --table "$t" --format jsonl --config "$cfg" >/dev/null
    ok=0
    why=""
    dedup run --config "$cfg" --report "$dir/dry" >"$dir/dry.out" 2>&1
    if [ "$(plan_pairs "$dir/dry" | tr '\t' ' ')" != "1 2" ]; then ok=1; why="the dry run did not plan 1 <- 2"; fi
    if [ "$case" = edited ]; then
      sql "UPDATE \`$t\` SET title = '求购大蒜', product = '大蒜', content = '长期大量求购大蒜，需求约20吨，联系人：王先生，电话：13800138000。' WHERE id = 1"
    else
      sql "UPDATE \`$t\` SET reg_time = NOW() WHERE id = 1"
    fi
    rc=0
    dedup run --apply --config "$cfg" >"$dir/apply.out" 2>&1 || rc=$?
    [ "$rc" = 0 ] || { ok=1; why="$why; run --apply exit $rc: $(tail -1 "$dir/apply.out")"; }
    in_table=$(sql "SELECT GROUP_CONCAT(id ORDER BY id) FROM \`$t\`")
    archived=$(sql "SELECT COALESCE(GROUP_CONCAT(id ORDER BY id), '') FROM \`${t}_removed\`")
    left=$(grep -o 'apply: [0-9,]* planned rows left in place' "$dir/apply.out" || echo "no rows left in place")
    [[ ",$in_table," == *,1,* ]] || { ok=1; why="$why; post 1 was deleted"; }
    if [ "$case" = edited ]; then
      [ "$in_table" = "1,2" ] || { ok=1; why="$why; table holds '$in_table', expected 1,2"; }
      note="post 1 edited to another product: table {$in_table}, archive {$archived}; $left"
    else
      if [ "$in_table" = "1" ]; then twin="twin (post 2) removed: the target"
      else twin="twin (post 2) still in the table (no change detection in the index sync yet)"; fi
      note="post 1 re-dated to NOW(): table {$in_table}, archive {$archived}; $left; $twin"
    fi
    result "$ok" "d $case: $note${why:+ -- $why (kept: $dir)}"
    finish_trial "$ok" "$t" "$dir"
  done
fi

# --- e. the lock's session killed (KILL, as pt-kill or a proxy would) during the sync and the passes ---
# Documented (docs/operations.md): the loss is said on stdout within the watcher's 20 s, the run stops at
# its next step with exit 1 and nothing moved, and the next run --apply completes the plan.
lock_holder() { sql "SELECT COALESCE(IS_USED_LOCK('xiaochong.$schema.$1'), 0)"; }
for ((i = 1; i <= LOCK_KILL_TRIALS; i++)); do
  new_trial "e$i"
  ok=0
  why=""
  "$root/bin/dedup" run --apply --config "$cfg" >"$dir/apply1.out" 2>&1 &
  pid=$!
  holder=0
  for _ in $(seq 1 400); do # the lock is taken before the index sync starts
    holder=$(lock_holder "$t")
    [ "$holder" = 0 ] || break
    sleep 0.05
  done
  # Trial i kills at (i - 1) / n of the calibrated run's first half: the sync first, then the passes.
  sleep "$(awk -v i="$i" -v n="$LOCK_KILL_TRIALS" -v T="$apply_seconds" 'BEGIN { printf "%.2f", (i - 1) / n * T / 2 }')"
  if [ "$holder" = 0 ] || ! kill -0 "$pid" 2>/dev/null; then
    ok=1
    why="the run had no lock to kill (holder $holder)"
  else
    killed_at=$(now)
    sql "KILL CONNECTION $holder"
  fi
  noticed=""
  rc1=0
  wait "$pid" || rc1=$?
  if [ "$ok" = 0 ]; then
    # the watcher's line carries the UTC time it noticed; the output's own order is enough to time it
    lost_at=$(grep -o 'was lost at [0-9:]* UTC' "$dir/apply1.out" | head -1 | grep -o '[0-9:]*' || true)
    if [ -n "$lost_at" ]; then
      noticed=$(awk -v k="$killed_at" -v l="$(date -u -d "$(date -u +%F) $lost_at" +%s)" 'BEGIN { printf "%.0f", l - k }')
    fi
    stop_line=$(grep -m1 -o 'the lock of table [^ ]* was lost[^;]*' "$dir/apply1.out" || true)
    if [ -z "$stop_line" ]; then
      ok=1
      why="no 'lock … was lost' line; exit $rc1: $(tail -1 "$dir/apply1.out")"
    elif [ -n "$noticed" ] && [ "$noticed" -gt 60 ]; then
      ok=1
      why="noticed $noticed s after the KILL"
    fi
    moved=0
    if has_table "${t}_removed"; then moved=$(sql "SELECT COUNT(*) FROM \`${t}_removed\`"); fi
    if [ "$moved" = 0 ] && [ "$rc1" != 1 ]; then
      ok=1
      why="$why; exit $rc1 with nothing moved, documented 1"
    elif [ "$moved" != 0 ] && [ "$rc1" != 4 ]; then
      ok=1
      why="$why; exit $rc1 with $moved moved, documented 4"
    fi
  fi
  wait_quiet "$t" || true
  rc2=0
  dedup run --apply --config "$cfg" >"$dir/apply2.out" 2>&1 || rc2=$?
  if [ "$rc2" != 0 ]; then
    ok=1
    why="$why; the next run --apply exit $rc2: $(tail -1 "$dir/apply2.out")"
  elif ! msg=$(check_plan "$t" "$dir/plan.tsv" "$dir"); then
    ok=1
    why="$why; after the next run: $msg"
  fi
  verdict="noticed ${noticed:-?} s after the KILL (UTC seconds), exit $rc1, moved ${moved:-?}; next apply: archive = plan ($planned)"
  [ "$ok" = 0 ] || verdict="-- $why (kept: $dir)"
  result "$ok" "$(printf 'e%02d lock session killed: %s' "$i" "$verdict")"
  finish_trial "$ok" "$t" "$dir"
done

if [ "$failed" = 0 ] && [ "${KEEP:-0}" != 1 ]; then
  sql "DROP TABLE IF EXISTS \`${P}template\`"
  rm -rf "$work"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
