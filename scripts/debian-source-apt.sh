# Sourced by scripts/build-curl.sh and scripts/build-openssl.sh: a private apt configuration that can
# fetch Debian's source packages without touching the machine's own apt state.
#
# debian_source_apt DIR: DIR gets a sources list with a `deb-src` line for every Debian suite the machine
# uses (the same URIs, suites and keyrings as its `deb` lines) and a lists directory of its own; `apt_opts`
# is then the apt-get options that use it. Only Debian's own archives (debian.org): a third-party repository
# (node, cloud SDKs) has no Debian source package and often no Sources index at all, which would fail the
# update. The caller removes DIR once the download is done (~40 MB of indices).
debian_source_apt() {
    local dir=$1 f
    rm -rf "$dir"
    mkdir -p "$dir/lists/partial" "$dir/sources.list.d"
    : >"$dir/sources.list"
    shopt -s nullglob
    for f in /etc/apt/sources.list.d/*.sources; do
        grep -Eq '^URIs:.*[./]debian\.org' "$f" || continue
        # deb822: every stanza whose Types list `deb` also gets `deb-src`.
        sed -E 's/^Types:(.*)\bdeb\b(.*)$/Types:\1deb\2 deb-src/' "$f" >"$dir/sources.list.d/$(basename "$f")"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [[ -f "$f" ]] && sed -nE '/[./]debian\.org/s/^deb( .*)$/deb-src\1/p' "$f" >>"$dir/sources.list"
    done
    shopt -u nullglob
    apt_opts=(-o "Dir::Etc::SourceList=$dir/sources.list" -o "Dir::Etc::SourceParts=$dir/sources.list.d"
        -o "Dir::State::Lists=$dir/lists" -o "APT::Sandbox::User=root")
}
