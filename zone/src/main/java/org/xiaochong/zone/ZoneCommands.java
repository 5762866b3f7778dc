package org.xiaochong.zone;

import java.util.List;
import org.xiaochong.command.CommandProvider;

/**
 * Adds {@code zone} and {@code zone-bench} to the {@code dedup} command line (see {@link
 * CommandProvider}).
 */
public final class ZoneCommands implements CommandProvider {
  @Override
  public List<Object> commands() {
    return List.of(new ZoneCommand(), new ZoneBenchCommand());
  }
}
