import requests

from config.settings import HTTP_TIMEOUT

BASE = "https://weather.example.com"


def forecast(city):
    response = requests.get(f"{BASE}/forecast", params={"city": city}, timeout=HTTP_TIMEOUT)
    return response.json()
