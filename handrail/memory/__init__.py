"""Living memory: notice when a change makes the project's own description stale,
prepare a precise request for the next agent to update it, and accept the update
only when it is well-formed, confined to its targets, and not racing another edit.

`prepare` and `commit` are the two halves; `store` holds the files they share;
`context` is what a harness's session-start hook reads (and nothing heavy).
The decisions themselves live in `handrail.policy.memory`.
"""
