package org.xiaochong.tools;

import java.util.List;
import org.xiaochong.command.CommandProvider;

/** Adds the tools' commands to the {@code dedup} command line (see {@link CommandProvider}). */
public final class ToolCommands implements CommandProvider {
  @Override
  public List<Object> commands() {
    return List.of(
        new DemoCommand(),
        new GenerateCommand(),
        new EvalCommand(),
        new BenchCommand(),
        new SimilarityCommand());
  }
}
