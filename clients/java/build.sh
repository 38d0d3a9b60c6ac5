#!/usr/bin/env bash
# Builds the Java reader with Debian's OpenJDK 17 and plain javac/jar (offline):
#   build/sbf.jar       package sbf, no dependency beyond the JDK
#   build/sbf-jdbc.jar  package sbf.jdbc (needs sbf.jar and Debian's
#                       /usr/share/java/postgresql.jar at run time)
# Installs its Debian packages when missing (as root): openjdk-17-jdk-headless,
# junit5 (the tests' JUnit 5, test.sh) and libpostgresql-jdbc-java.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../test/packages.sh"
need_packages java openjdk-17-jdk-headless junit5 libpostgresql-jdbc-java

# Debian's JDK 17 whatever the default java is
jdk=""
for d in /usr/lib/jvm/java-17-openjdk-*; do
	[ -x "$d/bin/javac" ] && jdk=$d && break
done
[ -n "$jdk" ] || { echo "java: no OpenJDK 17 under /usr/lib/jvm" >&2; exit 1; }
build=$here/build
rm -rf "$build/classes"
mkdir -p "$build/classes/main" "$build/classes/jdbc"

"$jdk/bin/javac" --release 17 -Xlint:all -Werror -encoding UTF-8 -d "$build/classes/main" \
	$(find "$here/src/main/java" -name '*.java' | sort)
"$jdk/bin/jar" --create --file "$build/sbf.jar" -C "$build/classes/main" .

"$jdk/bin/javac" --release 17 -Xlint:all -Werror -encoding UTF-8 -d "$build/classes/jdbc" \
	-cp "$build/sbf.jar:/usr/share/java/postgresql.jar" \
	$(find "$here/jdbc/src/main/java" -name '*.java' | sort)
"$jdk/bin/jar" --create --file "$build/sbf-jdbc.jar" -C "$build/classes/jdbc" .
echo "java: built $build/sbf.jar and $build/sbf-jdbc.jar ($("$jdk/bin/javac" -version 2>&1))"
