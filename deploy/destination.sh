#!/usr/bin/env bash
# Fill a destination file's <PLACEHOLDERS> from environment variables of the
# same name (<AGENT_ROUTE> from $AGENT_ROUTE, ...) and print it, write it for
# the cockpit's import, or create it through the Destination service REST API.
#
#   deploy/destination.sh render     destinations/NAME.json            # JSON on stdout
#   deploy/destination.sh properties destinations/NAME.json > NAME     # cockpit: Destinations > Import
#   deploy/destination.sh create     destinations/NAME.json KEY.json   # subaccount destination via REST
#
# KEY.json is a service key of a `destination` instance in the subaccount the
# destination belongs to (cf create-service-key <instance> <key>; cf
# service-key <instance> <key>, without the "Getting key" line). `create`
# POSTs .../subaccountDestinations and PUTs instead when the name exists.
# Needs bash, jq and curl. Never commit a rendered file: it holds secrets.
set -euo pipefail

usage() { sed -n '2,15p' "$0" >&2; exit 2; }
[ $# -ge 2 ] || usage
mode=$1 file=$2

render() {
  local content name value
  content=$(cat "$file")
  for name in $(grep -o '<[A-Z][A-Z0-9_]*>' "$file" | tr -d '<>' | sort -u); do
    value=${!name:-}
    if [ -z "$value" ]; then
      echo "error: $file needs \$$name (for <$name>); see docs/deploy-btp.md" >&2
      return 1
    fi
    value=${value//\\/\\\\}
    value=${value//\"/\\\"}
    content=${content//"<$name>"/"$value"}
  done
  jq . <<<"$content"
}

case $mode in
  render)
    render
    ;;
  properties)
    # Java properties, as the cockpit exports destinations (':' '=' '\' escaped).
    render | jq -r 'to_entries[] | "\(.key)=\(.value | gsub("\\\\"; "\\\\") | gsub(":"; "\\:") | gsub("="; "\\="))"'
    ;;
  create)
    [ $# -eq 3 ] || usage
    key=$(jq '.credentials // .' "$3")
    uaa=$(jq -r '.url' <<<"$key")
    uri=$(jq -r '.uri' <<<"$key")
    token=$(curl -sSf -u "$(jq -r '.clientid' <<<"$key"):$(jq -r '.clientsecret' <<<"$key")" \
      -d grant_type=client_credentials "$uaa/oauth/token" | jq -r '.access_token')
    body=$(render)
    name=$(jq -r '.Name' <<<"$body")
    base="$uri/destination-configuration/v1/subaccountDestinations"
    status=$(curl -sS -o /dev/stderr -w '%{http_code}' -X POST "$base" \
      -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -d "$body")
    # It exists: update it (the API takes PUT on the collection; some
    # descriptions show PUT on .../{name}, tried next).
    for target in "$base" "$base/$name"; do
      [ "$status" = 409 ] || [ "$status" = 404 ] || [ "$status" = 405 ] || break
      status=$(curl -sS -o /dev/stderr -w '%{http_code}' -X PUT "$target" \
        -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -d "$body")
    done
    case $status in
      2??) echo "destination $name: HTTP $status" ;;
      *) echo "error: destination $name: HTTP $status" >&2; exit 1 ;;
    esac
    ;;
  *)
    usage
    ;;
esac
