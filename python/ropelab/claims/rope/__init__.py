"""Claims of the RoPE section (RoFormer §3, §3.4; Selective RoPE §2, App. A.1). The section is a
package: :mod:`.core` holds the rotation identities and the decay bound, :mod:`.frequencies` the
frequency schedule, the element-wise layout and the base; both report under the same section, in
this order.
"""

from __future__ import annotations

# Importing the submodules registers their claims, in report order.
from ropelab.claims.rope import core, frequencies  # noqa: F401
