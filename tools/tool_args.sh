# tool_args.sh: sourced by the tools/check_*.sh scripts for the command-line handling they share.
# The script defines usage() first (its help text, to stdout).

# symh_tool_args MAX_ARGS "$@": -h/--help prints the usage and exits 0; any other option, or
# more than MAX_ARGS operands, prints the usage to stderr and exits 2 (the scripts' usage error).
# A script with options of its own removes them from "$@" before.
symh_tool_args() {
    local max=$1 arg operands=0

    shift
    for arg in "$@"; do
        case $arg in
        -h | --help)
            usage
            exit 0
            ;;
        -*)
            usage >&2
            exit 2
            ;;
        *) operands=$((operands + 1)) ;;
        esac
    done
    if ((operands > max)); then
        usage >&2
        exit 2
    fi
}
