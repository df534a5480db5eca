"""API implementations; importing this package registers every API with the sandbox."""

from coevo.envs.apibank.apis import (  # noqa: F401 - imported for registration
    accounts,
    calendar,
    finance,
    health,
    knowledge,
    level3,
    smarthome,
)
