from mindzero.cli import main

raise SystemExit(main())
