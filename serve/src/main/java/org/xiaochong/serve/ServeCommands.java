package org.xiaochong.serve;

import java.util.List;
import org.xiaochong.command.CommandProvider;

/** Adds {@code serve} to the {@code dedup} command line (see {@link CommandProvider}). */
public final class ServeCommands implements CommandProvider {
  @Override
  public List<Object> commands() {
    return List.of(new ServeCommand());
  }
}
