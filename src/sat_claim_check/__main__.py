"""python -m sat_claim_check"""

import sys

from .cli import main

sys.exit(main())
