from surveytool.cli.app import main

main()
