package org.xiaochong.method;

import java.util.Map;
import java.util.Optional;
import org.xiaochong.archive.PairCheck;
import org.xiaochong.source.TableSpec;

/**
 * One way to find duplicates: what it indexes, how its documents are made, its pass over the
 * records of a run's window, and its prefilter keys. An implementation is a stateless, named
 * factory; {@link #open} starts its part of one run ({@link MethodRun}). The runner, the run log,
 * {@code summary.json} and the report only iterate over the methods a run was given; none of them
 * names one.
 *
 * <p>Methods are looked up by {@link #name()} in {@link FingerprintMethods}. The name is also the
 * rule of its removals ({@code dedup_rule}, {@code dedup_plan.rule}, {@code decisions.jsonl}), its
 * section in {@code summary.json}, and the folder of its own index under {@code index.dir}, so it
 * must be a lower-case identifier of at most 16 characters and never change once removals carry it.
 *
 * <p>Implementations must be thread-safe (they hold no run state).
 */
public interface FingerprintMethod {
  /** The method's name: {@code --method} value, rule label, summary section, index folder. */
  String name();

  /**
   * The version of what this method indexes. It is part of the digest of the method's own index, so
   * a change makes the next run rebuild that index instead of mixing two formats.
   */
  String formatVersion();

  /**
   * The config keys of this method's own settings with their defaults, named {@code <name>.<key>}
   * (e.g. {@code simhash.max-distance}); none by default. The config accepts them, documents them
   * in {@code config/dedup.properties}, and hands their values to every {@link
   * MethodContext#settings()}.
   */
  default Map<String, String> settingDefaults() {
    return Map.of();
  }

  /**
   * The config keys naming the columns this method reads, beyond the ones every method shares
   * ({@code fields.exact}, {@code fields.phone}); empty (the default) for a method that reads only
   * those. The config accepts the keys and puts their columns in {@link TableSpec#methodColumns()}
   * under them, where the method finds them again ({@link TableSpec#columns(String)}).
   */
  default Optional<MethodColumns> columns() {
    return Optional.empty();
  }

  /**
   * Checks the values of {@link #settingDefaults}' keys when the config loads, so a bad value fails
   * every command at once, whichever method it runs.
   *
   * @throws org.xiaochong.source.BadInputException naming the key
   */
  default void checkSettings(Map<String, String> settings, TableSpec table) {}

  /**
   * Starts this method's part of a run that selected it: opens what it indexes (creating it when
   * missing, or rebuilding it when {@link MethodContext#rebuild()} or its digest changed) and its
   * prefilter. The caller closes the returned run.
   */
  MethodRun open(MethodContext context);

  /**
   * For a run or restore that did not select this method: its own index, only when one was built,
   * so that it follows the rows an applied run removes and a restore puts back. Empty when nothing
   * was built or the method keeps nothing of its own (its keys are in the record index), the
   * default.
   */
  default Optional<MethodRun> openIfBuilt(MethodContext context) {
    return Optional.empty();
  }

  /**
   * For {@code check}: this method's online check over what runs built, or empty when nothing was
   * built yet (the default: a method without an online form). The check reads the last commit of
   * the method's index; when {@code writable} ({@code check --add}) it may add to it and holds its
   * write lock until closed.
   */
  default Optional<MethodCheck<?>> openCheck(MethodContext context, boolean writable) {
    return Optional.empty();
  }

  /**
   * For {@code check}, when {@link #openCheck} found nothing built and the user did not name this
   * method: a one-line note saying what is missing and what builds it (e.g. {@code no near index
   * yet (`dedup run --method near|both` builds it): exact verdicts only}), or empty when the method
   * does not apply to {@code table} or its absence needs no word (the default).
   */
  default Optional<String> notBuiltNote(TableSpec table) {
    return Optional.empty();
  }

  /**
   * For the apply's re-check of rows changed since the pass: whether two rows, as they hold now,
   * are duplicates by this method's rule ({@link PairCheck}), one per apply worker. {@link
   * PairCheck#EXACT_KEY} (the default) when the rule is the exact key, which the apply always
   * checks.
   */
  default PairCheck openPairCheck(MethodContext context) {
    return PairCheck.EXACT_KEY;
  }

  /**
   * For the report: each compared column's part in a pair's decision ({@link PairEvidence}), for a
   * method that weighs columns; empty (the default) for one that does not, or before its model is
   * built.
   */
  default Optional<PairEvidence> openPairEvidence(MethodContext context) {
    return Optional.empty();
  }
}
