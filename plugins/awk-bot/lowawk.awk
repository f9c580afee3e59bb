# lowawk: a Vändtia bot in awk. It plays the first "play" action it is offered (the legal
# list comes in the engine's order: lowest cards first), otherwise the first legal action.
# One JSON object per line in, one per line out; see docs/protocol.md.

/"type":"start"/ { print "{\"type\":\"ready\"}"; fflush(); next }
/"type":"end"/   { next }
/"type":"act"/ {
    legal = $0
    sub(/.*"legal":\[/, "", legal)     # the legal list is the last field of an act message
    sub(/\][^\]]*$/, "", legal)
    n = split(substr(legal, 2, length(legal) - 2), actions, /","/)
    choice = actions[1]
    for (i = 1; i <= n; i++) if (actions[i] ~ /^play /) { choice = actions[i]; break }
    printf "{\"type\":\"action\",\"action\":\"%s\"}\n", choice
    fflush()
}
