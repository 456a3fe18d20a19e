from handrail.main import main

raise SystemExit(main())
