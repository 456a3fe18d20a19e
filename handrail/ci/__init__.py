"""`handrail ci`: the git rules over a pull request's commits, where no agent holds the shell."""
