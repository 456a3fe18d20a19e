"""`handrail ci`: the git rules over a pull request's commits, on the CI engine a team runs."""
