package org.xiaochong.method;

import java.util.OptionalLong;
import org.xiaochong.source.RecordSource;

/**
 * The run of a method whose keys are all in the record index (the exact key, or the ids and times):
 * it keeps no index or prefilter of its own, so only {@link #pass} is left to write.
 */
@FunctionalInterface
public interface RecordIndexRun extends MethodRun {
  @Override
  default boolean ownsIndex() {
    return false;
  }

  @Override
  default boolean indexIsNew() {
    return false;
  }

  @Override
  default OptionalLong sync(RecordSource source, long[] skipSorted) {
    return OptionalLong.empty();
  }

  @Override
  default void delete(long[] idsSorted) {}

  @Override
  default void save() {}

  @Override
  default void close() {}
}
