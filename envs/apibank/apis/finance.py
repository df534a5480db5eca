"""Money and bookings: bank balance, bank accounts, stock prices, hotel orders."""

from __future__ import annotations

import datetime
from typing import Any

from coevo.envs.apibank.apis.smarthome import normalise_year
from coevo.envs.apibank.sandbox import ApiException, CallContext, implements

#: OpenBankAccount keeps its own accounts (not an initial database); API-Bank starts it so.
INITIAL_BANK_ACCOUNTS: dict[int, dict[str, str]] = {0: {"account": "test", "password": "test", "name": "yifei"}}


@implements("QueryBalance")
def query_balance(ctx: CallContext, token: str) -> Any:
    try:
        token.strip()  # a non-string token fails here, as in API-Bank
        username = ctx.check_token(token)
    except Exception:  # noqa: BLE001 - any token failure reads the same
        raise ApiException("The token is incorrect.") from None
    bank = ctx.read("Bank")
    if username not in bank:
        raise ApiException("The user does not have an account.")
    return bank[username]["balance"]


@implements("OpenBankAccount")
def open_bank_account(ctx: CallContext, account: str, password: str, name: str) -> str:
    accounts = ctx.state.memory.get("OpenBankAccount", INITIAL_BANK_ACCOUNTS)
    if any(item["account"] == account for item in accounts.values()):
        return "failed"
    updated = dict(accounts)
    updated[len(accounts) + 1] = {"account": account, "password": password, "name": name}
    ctx.state.memory["OpenBankAccount"] = updated
    return "success"


@implements("QueryStock")
def query_stock(ctx: CallContext, stock_code: str, date: str) -> Any:
    code = stock_code.upper().strip() or None
    day: str | Exception
    try:
        day = datetime.datetime.strptime(normalise_year(date), "%Y-%m-%d").strftime("%Y-%m-%d")
    except Exception as exc:  # noqa: BLE001
        day = exc
    if code is None:
        raise ApiException("The stock code cannot be empty.")
    if isinstance(day, Exception):
        raise day
    stocks = ctx.read("Stock")
    if code not in stocks:
        raise ApiException("The stock code does not exist.")
    if day not in stocks[code]:
        raise ApiException("The stock price of this date is not maintained.")
    return stocks[code][day]


@implements("BookHotel")
def book_hotel(
    ctx: CallContext,
    hotel_name: str,
    check_in_time: str,
    check_out_time: str,
    room_count: int,
    adult_count: int,
    child_count: int,
) -> str:
    check_in = datetime.datetime.strptime(check_in_time, "%Y-%m-%d")
    check_out = datetime.datetime.strptime(check_out_time, "%Y-%m-%d")
    if adult_count > 2 and room_count == 1:
        raise ApiException("The number of adults is greater than 2. Two rooms are ordered.")
    orders = ctx.read("Hotel")
    for order in orders.values():
        if order["hotel_name"] != hotel_name:
            continue
        start = datetime.datetime.strptime(order["check_in_time"], "%Y-%m-%d")
        end = datetime.datetime.strptime(order["check_out_time"], "%Y-%m-%d")
        if start <= check_in < end or start < check_out <= end:
            raise ApiException("The room is not available.")
    order_id = str(len(orders) + 1)
    ctx.write("Hotel")[order_id] = {
        "hotel_name": hotel_name,
        "check_in_time": check_in_time,
        "check_out_time": check_out_time,
        "room_count": room_count,
        "adult_count": adult_count,
        "child_count": child_count,
    }
    return order_id
