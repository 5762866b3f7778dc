package org.xiaochong.command;

import java.util.List;

/**
 * Commands of another module that join the {@code dedup} command line. A module names its provider
 * in {@code META-INF/services/org.xiaochong.command.CommandProvider}; {@link
 * DedupCommand#commandLine} adds the commands of every provider on the class path after the
 * built-in ones (providers in the order of their class names). The {@code dedup} jar alone has
 * none; {@code bin/dedup} runs with all of them.
 */
public interface CommandProvider {
  /** Instances of picocli {@code @Command} classes, in the order {@code --help} lists them. */
  List<Object> commands();
}
