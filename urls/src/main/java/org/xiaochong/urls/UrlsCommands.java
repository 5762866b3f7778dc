package org.xiaochong.urls;

import java.util.List;
import org.xiaochong.command.CommandProvider;

/** Adds {@code urls} to the {@code dedup} command line (see {@link CommandProvider}). */
public final class UrlsCommands implements CommandProvider {
  @Override
  public List<Object> commands() {
    return List.of(new UrlsCommand());
  }
}
