"""Back-office staff (docs/backoffice.md), one module per concern.

roles           the roles (Django groups) and their permissions; who needs a second
                factor; what each role may change on a player
scope           a staff user's operator scope
four_eyes       what every four-eyes request shares: its texts, who may propose it
access          staff access changes, four eyes (proposals, approvals, rejections)
otp             the second factor (TOTP) and a device's enrolment
sessions        staff sessions' idle and lifetime clocks
login_attempts  staff secrets checked only within the failures an address has left
admin_site      the back office's admin site: its login asks for the second factor
"""
