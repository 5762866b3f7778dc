@echo off
rem Launcher for the xiaochong dedup CLI on Windows, in a clone (built with the Maven wrapper on first
rem use) and in the release archive (lib\). Needs a Java 21+ runtime: %JAVA_HOME%\bin\java.exe when
rem JAVA_HOME is set, else java on the PATH. JAVA_OPTS is passed to the JVM (e.g. set JAVA_OPTS=-Xmx1g).
rem Passwords go in the config file or in DEDUP_DB_PASSWORD, never on the command line.
setlocal
set "ROOT=%~dp0.."
if exist "%ROOT%\lib\xiaochong-tools-*.jar" (
  set "CP=%ROOT%\lib\*"
  goto java
)
set "CP=%ROOT%\tools\target\xiaochong-tools.jar"
if exist "%CP%" goto java
echo building xiaochong (first run, about a minute) ... 1>&2
pushd "%ROOT%"
call mvnw.cmd -q -B -DskipTests -pl tools -am package 1>&2
set "BUILD=%ERRORLEVEL%"
popd
if not "%BUILD%"=="0" exit /b %BUILD%

:java
set "JAVA=java"
if defined JAVA_HOME if exist "%JAVA_HOME%\bin\java.exe" set "JAVA=%JAVA_HOME%\bin\java.exe"
rem The throughput collector and doubled JIT thresholds, as bin/dedup (bench/RESULTS.md); a collector or a
rem CompileThresholdScaling named in JAVA_OPTS wins.
set "GC=-XX:+UseParallelGC"
set "JIT=-XX:CompileThresholdScaling=2"
echo.%JAVA_OPTS% | findstr /r /c:"-XX:+Use[A-Za-z0-9]*GC" >nul && set "GC="
echo.%JAVA_OPTS% | findstr /c:"-XX:CompileThresholdScaling=" >nul && set "JIT="
"%JAVA%" --enable-native-access=ALL-UNNAMED %GC% %JIT% %JAVA_OPTS% -cp "%CP%" org.xiaochong.cli.DedupCommand %*
exit /b %ERRORLEVEL%
