"""Account APIs: tokens, registration, passwords, account deletion (table `Account`)."""

from __future__ import annotations

import string
from typing import Any

from coevo.envs.apibank.sandbox import ApiException, CallContext, implements

#: The verification code ForgotPassword sends (API-Bank fixes it so dialogues can quote it).
VERIFICATION_CODE = 970420


@implements("CheckToken")
def check_token(ctx: CallContext, token: str) -> dict[str, str]:
    return {"username": ctx.check_token(token)}


@implements("GetUserToken")
def get_user_token(ctx: CallContext, username: str, password: str) -> dict[str, str]:
    accounts = ctx.read("Account")
    if username not in accounts:
        raise ApiException("The username does not exist.")
    if accounts[username]["password"] != password:
        raise ApiException("The password is incorrect.")
    return {"token": accounts[username]["token"]}


@implements("RegisterUser")
def register_user(ctx: CallContext, username: str, password: str, email: str) -> dict[str, str]:
    if username in ctx.read("Account"):
        raise ApiException("The username already exists.")
    token = ctx.hints.get("token")
    if not isinstance(token, str) or not token:
        alphabet = string.ascii_letters + string.digits
        token = "".join(ctx.rng().choices(alphabet, k=18)).lower()
    ctx.write("Account")[username] = {"password": password, "token": token, "email": email}
    return {"token": token}


@implements("DeleteAccount")
def delete_account(ctx: CallContext, token: str) -> dict[str, str]:
    username = ctx.check_token(token)
    if username not in ctx.read("Account"):
        raise ApiException("No such user.")
    del ctx.write("Account")[username]
    return {"status": "success"}


@implements("ModifyPassword")
def modify_password(ctx: CallContext, token: str, old_password: str, new_password: str) -> dict[str, str]:
    username = ctx.check_token(token)
    account = ctx.read("Account")[username]
    if account["password"] != old_password:
        raise ApiException("The old password is incorrect.")
    ctx.write("Account")[username] = {**account, "password": new_password}
    return {"status": "success"}


@implements("ForgotPassword")
def forgot_password(ctx: CallContext, status: str, **kwargs: Any) -> Any:
    """Two calls: 'Forgot Password' sends the code, 'Verification Code' sets the new password."""
    pending = ctx.state.memory.get("ForgotPassword")
    if status == "Forgot Password":
        if "username" not in kwargs or "email" not in kwargs:
            raise ApiException("The username and email are required for the first call.")
        accounts = ctx.read("Account")
        username = kwargs["username"]
        if username not in accounts:
            raise ApiException("The username does not exist.")
        if accounts[username]["email"] != kwargs["email"]:
            raise ApiException("The email is incorrect.")
        ctx.state.memory["ForgotPassword"] = (VERIFICATION_CODE, username)
        return VERIFICATION_CODE
    if status == "Verification Code":
        if not pending:
            raise ApiException("You need to call the API with status 'Forgot Password' at first.")
        if "new_password" not in kwargs or "verification_code" not in kwargs:
            raise ApiException("The new password and verification code are required for the second call.")
        code, username = pending
        if code != kwargs["verification_code"]:
            raise ApiException("The verification code is incorrect.")
        accounts = ctx.write("Account")
        accounts[username] = {**accounts[username], "password": kwargs["new_password"]}
        return "success"
    raise ApiException("The status is only 'Forgot Password' or 'Verification Code'.")
