"""One module per harness: its pre-tool hook protocol (`# ---- hook protocol`) and its
native permission files. Each only translates; every decision is in handrail.policy."""
